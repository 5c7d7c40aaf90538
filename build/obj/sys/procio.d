build/obj/sys/procio.o: src/sys/procio.c src/sys/procio.h
src/sys/procio.h:

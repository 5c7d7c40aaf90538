build/obj/main.o: src/main.c src/cmd/cmd.h
src/cmd/cmd.h:

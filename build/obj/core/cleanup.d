build/obj/core/cleanup.o: src/core/cleanup.c src/core/cleanup.h
src/core/cleanup.h:

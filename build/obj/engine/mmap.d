build/obj/engine/mmap.o: src/engine/mmap.c src/engine/engine.h
src/engine/engine.h:

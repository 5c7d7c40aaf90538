build/obj/core/hist.o: src/core/hist.c src/core/hist.h
src/core/hist.h:

build/obj/core/opt.o: src/core/opt.c src/core/opt.h
src/core/opt.h:

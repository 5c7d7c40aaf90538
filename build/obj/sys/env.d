build/obj/sys/env.o: src/sys/env.c src/sys/env.h
src/sys/env.h:

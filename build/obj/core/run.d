build/obj/core/run.o: src/core/run.c src/core/run.h src/core/hist.h \
 src/core/clock.h
src/core/run.h:
src/core/hist.h:
src/core/clock.h:

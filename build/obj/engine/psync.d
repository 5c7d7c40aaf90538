build/obj/engine/psync.o: src/engine/psync.c src/engine/engine.h \
 src/core/run.h src/core/hist.h
src/engine/engine.h:
src/core/run.h:
src/core/hist.h:

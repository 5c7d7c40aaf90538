build/obj/workload/tiotest.o: src/workload/tiotest.c \
 src/workload/tiotest.h src/core/opt.h src/core/run.h src/core/hist.h \
 src/sys/procio.h src/core/cleanup.h src/core/clock.h src/engine/engine.h
src/workload/tiotest.h:
src/core/opt.h:
src/core/run.h:
src/core/hist.h:
src/sys/procio.h:
src/core/cleanup.h:
src/core/clock.h:
src/engine/engine.h:

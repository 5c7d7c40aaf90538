build/obj/report/tiotest_text.o: src/report/tiotest_text.c \
 src/report/tiotest_text.h src/workload/tiotest.h src/core/opt.h \
 src/core/run.h src/core/hist.h src/sys/procio.h src/core/clock.h
src/report/tiotest_text.h:
src/workload/tiotest.h:
src/core/opt.h:
src/core/run.h:
src/core/hist.h:
src/sys/procio.h:
src/core/clock.h:

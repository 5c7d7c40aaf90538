build/obj/cmd/tiotest.o: src/cmd/tiotest.c src/cmd/cmd.h \
 src/core/cleanup.h src/core/opt.h src/core/run.h src/core/hist.h \
 src/report/json.h src/workload/tiotest.h src/sys/procio.h \
 src/report/tiotest_text.h
src/cmd/cmd.h:
src/core/cleanup.h:
src/core/opt.h:
src/core/run.h:
src/core/hist.h:
src/report/json.h:
src/workload/tiotest.h:
src/sys/procio.h:
src/report/tiotest_text.h:

build/obj/report/json.o: src/report/json.c src/report/json.h \
 src/core/run.h src/core/hist.h src/workload/tiotest.h src/core/opt.h \
 src/sys/procio.h src/sys/env.h
src/report/json.h:
src/core/run.h:
src/core/hist.h:
src/workload/tiotest.h:
src/core/opt.h:
src/sys/procio.h:
src/sys/env.h:

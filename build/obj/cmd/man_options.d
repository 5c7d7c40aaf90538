build/obj/cmd/man_options.o: src/cmd/man_options.c src/cmd/cmd.h \
 src/core/opt.h src/workload/tiotest.h src/core/run.h src/core/hist.h \
 src/sys/procio.h
src/cmd/cmd.h:
src/core/opt.h:
src/workload/tiotest.h:
src/core/run.h:
src/core/hist.h:
src/sys/procio.h:

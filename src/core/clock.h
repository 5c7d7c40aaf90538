/* The one clock of fsbench: CLOCK_MONOTONIC in nanoseconds. Report code converts units. */
#ifndef FSB_CLOCK_H
#define FSB_CLOCK_H
#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define NS_PER_S 1000000000.0
#endif

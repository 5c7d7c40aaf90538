/* The engine registry as text: `fsbench list engines` and the man page's ENGINES entries. */
#ifndef FSB_REPORT_ENGINE_TEXT_H
#define FSB_REPORT_ENGINE_TEXT_H
#include <stdbool.h>
#include <stdio.h>

/* "name  summary" lines of the visible engines, or man page entries (.TP/.B) with man. */
void engine_text_list(FILE *out, bool man);
#endif

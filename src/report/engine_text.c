/* The engine registry as text (report/engine_text.h). */
#include "report/engine_text.h"

#include "engine/engine.h"

void engine_text_list(FILE *out, bool man)
{
	const struct engine_ops *e;

	for (unsigned i = 0; (e = engine_at(i)); i++) {
		/* the man page is built once for everyone: never with the test engines */
		if (man ? e->hidden : !engine_usable(e))
			continue;
		if (man)
			fprintf(out, ".TP\n.B %s\n%s\n", e->name, e->summary);
		else
			fprintf(out, "%-8s %s\n", e->name, e->summary);
	}
}

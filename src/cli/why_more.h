/* why_more.h - what `gpusched why` adds to the explain answer: for a
 * pending job the nodes and GPUs out of service with their reasons, for a
 * running job where and since when it runs and its limit, for an ended
 * one what it did (outcome, exit code, when). */
#ifndef GS_CLI_WHY_MORE_H
#define GS_CLI_WHY_MORE_H

#include <jansson.h>

#include "cli/client.h"

/* Print the rest of `why` for explain answer `ex` (borrowed): fetches the
 * node list (pending) or the job object (else) from o->server.  Returns
 * the exit status: 0, or 1 after the request failed (reported). */
int cli_why_more(const struct gs_client_opts *o, const json_t *ex);

#endif

/* placeholder until the planner hook lands (replaced by the GpuSort work) */
#include "postgres.h"
#include "gpusort.h"
void gpusort_planner_init(void) {}

#include <ao/ao.h>

#ifndef TENSORPLAN_VERSION_H
#define TENSORPLAN_VERSION_H
// Kept equal to package.json's version; a test checks they agree.
#define TENSORPLAN_CORE_VERSION "0.1.0"
#endif

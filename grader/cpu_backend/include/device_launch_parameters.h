// Provided by the CPU backend for code that includes it directly.
#include "cuda_runtime.h"

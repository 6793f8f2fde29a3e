#include "tests/frontend/test_util.h"

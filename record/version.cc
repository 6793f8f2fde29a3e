#include "record/version.h"

namespace ember::record {

const char* ember_version() { return EMBER_VERSION; }

}  // namespace ember::record

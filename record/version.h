#pragma once
// The Ember version written into records (the project's version, from CMake).

namespace ember::record {

const char* ember_version();

}  // namespace ember::record

#pragma once
// Ember's nn layer: `#include "nn/nn.h"` for modules, configs, layers, initializers and losses.
#include "nn/activation.h"
#include "nn/config.h"
#include "nn/dropout.h"
#include "nn/initializer.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/param.h"

#pragma once
// Ember's optim layer: `#include "optim/optim.h"` for GradientsParams, the optimizers, gradient
// clipping and the learning-rate schedulers.
#include "optim/ada_grad.h"
#include "optim/adam.h"
#include "optim/adamw.h"
#include "optim/clip_grad_norm.h"
#include "optim/grad_clipping.h"
#include "optim/gradients_params.h"
#include "optim/optimizer.h"
#include "optim/rms_prop.h"
#include "optim/scheduler/constant.h"
#include "optim/scheduler/cosine_annealing.h"
#include "optim/scheduler/exponential.h"
#include "optim/scheduler/linear.h"
#include "optim/scheduler/lr_scheduler.h"
#include "optim/scheduler/step.h"
#include "optim/scheduler/warm_up.h"
#include "optim/sgd.h"

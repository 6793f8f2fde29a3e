#include "train/output.h"

namespace ember::train {

MetricInput ClassificationOutput::metric_input() const {
  MetricInput in;
  in.loss = loss;
  in.output = output;
  in.targets = targets;
  in.batch_size = output.shape()[0];
  return in;
}

MetricInput RegressionOutput::metric_input() const {
  MetricInput in;
  in.loss = loss;
  in.output = output;
  in.values = targets;
  in.batch_size = output.shape()[0];
  return in;
}

MetricInput SequenceOutput::metric_input() const {
  const auto dims = output.dims();
  const int64_t positions = dims[0] * dims[1];
  MetricInput in;
  in.loss = loss;
  in.output = output.reshape<2>(Shape{positions, dims[2]});
  in.targets = targets.reshape<1>(Shape{positions});
  if (pad_token >= 0) in.weights = in.targets->not_equal_elem(pad_token).float_();
  in.batch_size = positions;
  return in;
}

}  // namespace ember::train

// DENSIFY's validate/prepare/execute, for the family's registration.
#pragma once

#include "ops/operation.h"

namespace nncosim::ops {

Status validateDensify(const OperationContext& ctx);
Status prepareDensify(OperationContext& ctx);
Status executeDensify(OperationContext& ctx);

}  // namespace nncosim::ops

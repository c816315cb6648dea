#include "hal/model_builder.h"

#include "hal/json_fields.h"

namespace nncosim::hal {

uint32_t ModelBuilder::addOperand(OperandType type, std::vector<uint32_t> dims, float scale,
                                  int32_t zeroPoint, OperandLifeTime lifetime, std::string name) {
  Operand o;
  o.type = type;
  o.dimensions = std::move(dims);
  o.scale = scale;
  o.zeroPoint = zeroPoint;
  o.lifetime = lifetime;
  o.name = std::move(name);
  model_.main.operands.push_back(std::move(o));
  return static_cast<uint32_t>(model_.main.operands.size() - 1);
}

uint32_t ModelBuilder::addInput(OperandType type, std::vector<uint32_t> dims, float scale,
                                int32_t zeroPoint, std::string name) {
  uint32_t i = addOperand(type, std::move(dims), scale, zeroPoint, OperandLifeTime::SUBGRAPH_INPUT,
                          std::move(name));
  model_.main.inputIndexes.push_back(i);
  return i;
}

uint32_t ModelBuilder::addOutput(OperandType type, std::vector<uint32_t> dims, float scale,
                                 int32_t zeroPoint, std::string name) {
  uint32_t i = addOperand(type, std::move(dims), scale, zeroPoint, OperandLifeTime::SUBGRAPH_OUTPUT,
                          std::move(name));
  model_.main.outputIndexes.push_back(i);
  return i;
}

uint32_t ModelBuilder::addConstant(OperandType type, std::vector<uint32_t> dims, const void* bytes,
                                   size_t size, float scale, int32_t zeroPoint, std::string name) {
  uint32_t i = addOperand(type, std::move(dims), scale, zeroPoint, OperandLifeTime::CONSTANT_COPY,
                          std::move(name));
  const auto* p = static_cast<const uint8_t*>(bytes);
  model_.main.operands[i].location =
      appendOperandValue(model_.operandValues, std::vector<uint8_t>(p, p + size));
  return i;
}

void ModelBuilder::setChannelQuant(uint32_t operand, std::vector<float> scales,
                                   uint32_t channelDim) {
  model_.main.operands.at(operand).channelQuant =
      SymmPerChannelQuantParams{std::move(scales), channelDim};
}

void ModelBuilder::addOperation(OperationType type, std::vector<uint32_t> inputs,
                                std::vector<uint32_t> outputs) {
  model_.main.operations.push_back(Operation{type, std::move(inputs), std::move(outputs)});
}

}  // namespace nncosim::hal

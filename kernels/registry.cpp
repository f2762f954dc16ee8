#include "kernels/registry.h"

#include <stdexcept>

namespace flabench {

const OpSpec& Registry::add_op(OpSpec op) {
  if (find_op(op.name)) throw std::logic_error("op '" + op.name + "' registered twice");
  return ops_.emplace_back(std::move(op));
}

void Registry::add_variant(Variant variant) {
  if (!find_op(variant.op))
    throw std::logic_error("variant '" + variant.name + "' names unknown op '" + variant.op + "'");
  if (find_variant(variant.op, variant.name))
    throw std::logic_error("variant '" + variant.op + "/" + variant.name + "' registered twice");
  variants_.push_back(std::move(variant));
}

const OpSpec* Registry::find_op(std::string_view name) const {
  for (const OpSpec& op : ops_)
    if (op.name == name) return &op;
  return nullptr;
}

const Variant* Registry::find_variant(std::string_view op, std::string_view name) const {
  for (const Variant& variant : variants_)
    if (variant.op == op && variant.name == name) return &variant;
  return nullptr;
}

std::vector<const OpSpec*> Registry::ops() const {
  std::vector<const OpSpec*> result;
  for (const OpSpec& op : ops_) result.push_back(&op);
  return result;
}

std::vector<const Variant*> Registry::variants_of(std::string_view op) const {
  std::vector<const Variant*> result;
  for (const Variant& variant : variants_)
    if (variant.op == op) result.push_back(&variant);
  return result;
}

const Registry& product_registry() {
  static const Registry registry = [] {
    Registry r;
    register_all_ops(r);
    return r;
  }();
  return registry;
}

}  // namespace flabench

// The ops and their variants. Each op folder registers itself in one function (register_<op>); the one list
// of ops is kernels/all_ops.cpp.
#pragma once

#include <deque>
#include <string_view>
#include <vector>

#include "kernels/op.h"
#include "kernels/variant.h"

namespace flabench {

class Registry {
 public:
  const OpSpec& add_op(OpSpec op);
  // The variant's op must have been added first.
  void add_variant(Variant variant);

  const OpSpec* find_op(std::string_view name) const;
  const Variant* find_variant(std::string_view op, std::string_view name) const;
  std::vector<const OpSpec*> ops() const;
  std::vector<const Variant*> variants_of(std::string_view op) const;

 private:
  std::deque<OpSpec> ops_;  // deque: pointers stay valid as entries are added
  std::deque<Variant> variants_;
};

// Registers every product op (kernels/all_ops.cpp).
void register_all_ops(Registry& registry);

// The registry of every product op, built once.
const Registry& product_registry();

}  // namespace flabench

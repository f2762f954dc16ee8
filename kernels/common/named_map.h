// An insertion-ordered map from tensor names to values: inputs, outputs and gradients of one call.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flabench {

template <class Value>
class NamedMap {
 public:
  using Entry = std::pair<std::string, Value>;

  // Adds `name`, or replaces its value when it is already present.
  Value& set(std::string name, Value value) {
    if (Value* found = find(name)) return *found = std::move(value);
    return entries_.emplace_back(std::move(name), std::move(value)).second;
  }

  Value* find(std::string_view name) {
    for (auto& entry : entries_)
      if (entry.first == name) return &entry.second;
    return nullptr;
  }
  const Value* find(std::string_view name) const { return const_cast<NamedMap*>(this)->find(name); }
  bool contains(std::string_view name) const { return find(name) != nullptr; }

  Value& at(std::string_view name) {
    if (Value* found = find(name)) return *found;
    throw std::out_of_range("no tensor named '" + std::string(name) + "'");
  }
  const Value& at(std::string_view name) const { return const_cast<NamedMap*>(this)->at(name); }

  std::size_t size() const { return entries_.size(); }
  auto begin() { return entries_.begin(); }
  auto end() { return entries_.end(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

 private:
  std::vector<Entry> entries_;
};

}  // namespace flabench

// Result<T>: a value or the Status that explains why there is none.
#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "indelible/status.h"

namespace indelible {

template <class T>
class [[nodiscard]] Result {
 public:
  // REQUIRES: !status.ok() (an ok Result must carry a value).
  Result(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT
  Result(T value) : value_(std::move(value)) {}                                  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok()
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace indelible

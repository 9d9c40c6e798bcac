// Result<T, E>: an expected outcome as a value (docs/architecture.md: outcomes are
// values, not exceptions). Either a T or an E; nothing else.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

namespace locksim {

template <class E>
struct Failure {
  E error;
};
template <class E>
Failure<std::decay_t<E>> failure(E&& e) {
  return {std::forward<E>(e)};
}

template <class T, class E>
class Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(Failure<E> f) : v_(std::in_place_index<1>, std::move(f.error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const {
    assert(ok());
    return std::get<0>(v_);
  }
  const E& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, E> v_;
};

}  // namespace locksim

// A first-in first-out queue in one growing ring buffer, for the recogniser's
// held events. std::deque allocates a block for every few ~150-byte events and
// frees it again as they are released, which cost more than recognising them
// (docs/performance.md, "Mali and Adreno"); the ring allocates only when the
// number held grows past its capacity.
#pragma once

#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace hwpc::adreno {

template <class T>
class event_queue {
 public:
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    const_iterator() = default;
    const_iterator(const event_queue* q, std::size_t i) : q_(q), i_(i) {}
    const T& operator*() const { return (*q_)[i_]; }
    const T* operator->() const { return &(*q_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator t = *this;
      ++i_;
      return t;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.i_ == b.i_;
    }

   private:
    const event_queue* q_ = nullptr;
    std::size_t i_ = 0;
  };

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // Element i from the front (i < size()).
  T& operator[](std::size_t i) noexcept { return buf_[(head_ + i) & mask_]; }
  const T& operator[](std::size_t i) const noexcept { return buf_[(head_ + i) & mask_]; }
  T& front() noexcept { return buf_[head_]; }
  const T& front() const noexcept { return buf_[head_]; }
  const_iterator begin() const noexcept { return {this, 0}; }
  const_iterator end() const noexcept { return {this, size_}; }

  // A new element at the back, value-initialised.
  // The capacity is kept beside the buffer (not buf_.size(), a division by
  // sizeof(T)) and grow() stays out of line, so this inlines into the
  // recogniser's per-event path.
  T& emplace_back() {
    if (size_ == capacity_) [[unlikely]] {
      grow();
    }
    T& slot = buf_[(head_ + size_) & mask_];
    slot = blank_;  // a copy, not a value-initialised temporary zeroed first
    ++size_;
    return slot;
  }
  void push_back(T&& v) { emplace_back() = std::move(v); }
  void push_back(const T& v) { emplace_back() = v; }
  // Forgets every element (the buffer is kept).
  void clear() noexcept { head_ = size_ = 0; }
  void pop_front() noexcept {
    head_ = (head_ + 1) & mask_;
    --size_;
  }

 private:
  // Doubles the capacity (a power of two, so an index wraps with a mask).
  __attribute__((noinline)) void grow() {
    std::vector<T> b(buf_.empty() ? 16 : 2 * buf_.size());
    for (std::size_t i = 0; i < size_; ++i) b[i] = std::move((*this)[i]);
    buf_ = std::move(b);
    capacity_ = buf_.size();
    mask_ = capacity_ - 1;
    head_ = 0;
  }

  static inline const T blank_{};
  std::vector<T> buf_;
  std::size_t capacity_ = 0;  // buf_.size()
  std::size_t mask_ = 0;      // buf_.size() - 1
  std::size_t head_ = 0, size_ = 0;
};

}  // namespace hwpc::adreno

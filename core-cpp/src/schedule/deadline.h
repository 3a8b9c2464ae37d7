// When a scheduling search (or a baseline) stops: at a wall-clock instant,
// after a number of work units, whichever comes first, or never.
#ifndef TENSORPLAN_SCHEDULE_DEADLINE_H
#define TENSORPLAN_SCHEDULE_DEADLINE_H

#include <chrono>
#include <cstdint>

namespace tp {

// Each call of passed() costs one work unit. A search bounded by work alone
// is deterministic: the same graph gives the same order on every machine and
// on both backends, which plan()'s fast mode relies on. Copies share one work
// counter, so a search that hands its deadline to helpers is charged for all
// of their work. clock_passed() reads the clock only and costs no unit, so
// loops may call it as often as they like without changing what a
// work-bounded search does.
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  // Never passes.
  static Deadline none() { return Deadline(false, Clock::time_point(), nullptr, 0); }
  // Wall clock only.
  static Deadline at(Clock::time_point when) { return Deadline(true, when, nullptr, 0); }
  // `seconds` after `from` (wall clock only).
  static Deadline after(Clock::time_point from, double seconds) {
    return at(from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
  }
  // Work only: `counter` outlives every search that uses the deadline.
  static Deadline after_work(int64_t* counter, int64_t units) { return Deadline(false, Clock::time_point(), counter, *counter + units); }

  bool passed() const {
    if (counter_ != nullptr && ++*counter_ >= work_limit_) return true;
    return clock_passed();
  }
  bool clock_passed() const { return timed_ && Clock::now() >= when_; }
  // passed() for a step worth `units` work units at once.
  bool spend(int64_t units) const {
    if (counter_ != nullptr && (*counter_ += units) >= work_limit_) return true;
    return clock_passed();
  }

  // A deadline at `fraction` of what is left of this one (time and work alike).
  Deadline share(double fraction) const {
    Deadline part = *this;
    if (timed_) {
      const Clock::time_point now = Clock::now();
      part.when_ = now + std::chrono::duration_cast<Clock::duration>((when_ - now) * fraction);
    }
    if (counter_ != nullptr) part.work_limit_ = *counter_ + static_cast<int64_t>(static_cast<double>(work_limit_ - *counter_) * fraction);
    return part;
  }

 private:
  Deadline(bool timed, Clock::time_point when, int64_t* counter, int64_t work_limit)
      : timed_(timed), when_(when), counter_(counter), work_limit_(work_limit) {}
  bool timed_;
  Clock::time_point when_;
  int64_t* counter_;
  int64_t work_limit_;
};

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_DEADLINE_H

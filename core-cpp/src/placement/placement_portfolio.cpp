// The search phase as a portfolio (PlaceOptions::threads): several workers
// run the whole search phase at once on copies of the pieces, each drawing
// its random choices from its own seed (SearchBudget::worker), and every
// piece keeps the lowest placement any worker found. A refuted capacity is a
// proof whichever worker found it, so the proved bound is the highest.
//
// Why a portfolio and not a parallel search: where the search ends depends
// on its random draws far more than on its time. On the held-out sparse
// packing pp-600-s9002, seven 10 s runs that differed only in the seed of
// the windows (placement_neighbourhood.cpp) ended between 1.0067 and 1.0276
// times the optimum, while one run given twice the time ends no lower on
// average (docs/placement-measurements.md, "The sparse and skewed families
// under earlier versions of the search"). Independent runs, as in the
// portfolios of Gomes and Selman ("Algorithm portfolios", Artificial
// Intelligence 126, 2001), take the best of such draws.
//
// Worker 0 runs on the calling thread with the seeds of a search without a
// portfolio, so one thread is exactly the search alone. Threads are POSIX
// threads created with an explicit stack: the searches recurse once per
// placed buffer, and some C libraries give threads 128 KB. A thread that
// cannot be created is not an error: the portfolio runs with the workers it
// has, and the result says how many ran (PlaceStats::threads). The WASM
// build without pthreads runs one worker.
#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "placement/placement_pieces.h"

#if (defined(__unix__) || defined(__APPLE__)) && (!defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__))
#define TP_PORTFOLIO_HAS_THREADS 1
#include <pthread.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif
#else
#define TP_PORTFOLIO_HAS_THREADS 0
#endif

namespace tp {
namespace placement_detail {
namespace {

struct Worker {
  size_t buffer_count = 0;
  const PlaceOptions* options = nullptr;
  double start = 0;
  int64_t lower_bound = 0;
  std::atomic<bool>* settled = nullptr;
  std::vector<Piece> pieces;
  SearchBudget budget;
  Placement out;
  HeightBracket bracket;
};

// Whether the worker answered the question for every worker: the optimum
// proved, the capacity refuted, or (without minimize) a placement within it.
bool settles(const Worker& worker) {
  if (worker.out.proved_infeasible || worker.bracket.proved >= worker.bracket.best) return true;
  return !worker.options->minimize && worker.options->capacity > 0 && worker.bracket.best <= worker.options->capacity;
}

void run_worker(Worker* worker) {
  worker->bracket = search_pieces(worker->buffer_count, *worker->options, worker->start, worker->lower_bound,
                                  &worker->pieces, &worker->budget, &worker->out);
  if (settles(*worker)) worker->settled->store(true, std::memory_order_relaxed);
}

#if TP_PORTFOLIO_HAS_THREADS
// The stack of each worker thread: the searches keep their stacks below
// what the WASM build's few MB allow (kMaxSearchBuffers), and this leaves
// room beyond that.
constexpr size_t kWorkerStackBytes = size_t{16} << 20;

void* run_worker_thread(void* worker) {
  run_worker(static_cast<Worker*>(worker));
  return nullptr;
}
#endif

}  // namespace

int32_t usable_processors() {
#if TP_PORTFOLIO_HAS_THREADS
#if defined(__linux__)
  // The processors this process may run on (taskset, cpusets) rather than
  // all those online: more workers than those only share them.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
  return static_cast<int32_t>(std::max<long>(1, sysconf(_SC_NPROCESSORS_ONLN)));
#else
  return 1;
#endif
}

int32_t portfolio_workers(const PlaceOptions& options) {
  if (!options.minimize && options.capacity <= 0) return 1;  // one short attempt: nothing to share
#if TP_PORTFOLIO_HAS_THREADS
  int64_t wanted = options.threads;
  if (wanted == 0) wanted = usable_processors();
  return static_cast<int32_t>(std::min<int64_t>(wanted, kMaxPlaceThreads));
#else
  return 1;
#endif
}

HeightBracket search_pieces_in_portfolio(size_t buffer_count, const PlaceOptions& options, double start,
                                         int64_t lower_bound, int32_t workers, std::vector<Piece>* pieces,
                                         SearchBudget* budget, Placement* out, int32_t* workers_run) {
  *workers_run = 1;
  if (workers <= 1) {
    budget->alone = true;
    return search_pieces(buffer_count, options, start, lower_bound, pieces, budget, out);
  }
  std::atomic<bool> settled(false);
  std::vector<std::unique_ptr<Worker>> team;
  for (int32_t k = 0; k < workers; ++k) {
    std::unique_ptr<Worker> worker(new Worker());
    worker->buffer_count = buffer_count;
    worker->options = &options;
    worker->start = start;
    worker->lower_bound = lower_bound;
    worker->settled = &settled;
    worker->pieces = *pieces;
    worker->budget = *budget;
    worker->budget.worker = static_cast<uint64_t>(k);
    worker->budget.settled = &settled;
    worker->out = *out;
    team.push_back(std::move(worker));
  }
#if TP_PORTFOLIO_HAS_THREADS
  std::vector<pthread_t> threads;
  pthread_attr_t attributes;
  const bool have_attributes = pthread_attr_init(&attributes) == 0;
  if (have_attributes) pthread_attr_setstacksize(&attributes, kWorkerStackBytes);
  for (size_t k = 1; k < team.size() && have_attributes; ++k) {
    pthread_t thread;
    if (pthread_create(&thread, &attributes, run_worker_thread, team[k].get()) != 0) break;
    threads.push_back(thread);
  }
  if (have_attributes) pthread_attr_destroy(&attributes);
  team.resize(threads.size() + 1);  // the workers without a thread never ran
  run_worker(team[0].get());
  for (pthread_t thread : threads) pthread_join(thread, nullptr);
#else
  team.resize(1);
  run_worker(team[0].get());
#endif
  *workers_run = static_cast<int32_t>(team.size());

  // Each piece: the lowest placement, ties to the lower worker. The proved
  // bound and a refuted capacity hold whichever worker proved them.
  HeightBracket bracket = team[0]->bracket;
  bool any_settled = false, all_stalled = true, any_timed_out = false;
  const int64_t nodes_before = budget->nodes;  // every worker's count starts from it
  for (const std::unique_ptr<Worker>& worker : team) {
    bracket.proved = std::max(bracket.proved, worker->bracket.proved);
    out->proved_infeasible = out->proved_infeasible || worker->out.proved_infeasible;
    any_settled = any_settled || settles(*worker);
    all_stalled = all_stalled && worker->budget.stalled;
    any_timed_out = any_timed_out || worker->budget.timed_out;
    budget->nodes += worker->budget.nodes - nodes_before;
  }
  for (size_t p = 0; p < pieces->size(); ++p) {
    size_t best = 0;
    for (size_t k = 1; k < team.size(); ++k) {
      if (team[k]->pieces[p].height < team[best]->pieces[p].height) best = k;
    }
    (*pieces)[p] = std::move(team[best]->pieces[p]);
    // The time the search reached what is returned: the latest among the
    // workers whose pieces make it up.
    budget->improved_seconds = std::max(budget->improved_seconds, team[best]->budget.improved_seconds);
  }
  bracket.best = pieces_height(*pieces);
  // A worker ended by another's answer did not run out of time.
  budget->stalled = !any_settled && all_stalled;
  budget->timed_out = !any_settled && any_timed_out;
  return bracket;
}

}  // namespace placement_detail
}  // namespace tp

#include "app/service/job_store.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <ctime>

#include "lib/base/error.hpp"
#include "lib/base/system.hpp"

namespace rockperm::app::service {

namespace {


// One prepared statement, finalized on every path.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      throw RuntimeFailure(std::string("job database: ") + sqlite3_errmsg(db) + " in: " + sql);
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  bool step() {  // true: a row
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw RuntimeFailure(std::string("job database: ") + sqlite3_errmsg(db_));
  }
  std::string text(int c) const {
    const auto* t = sqlite3_column_text(stmt_, c);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  std::int64_t integer(int c) const { return sqlite3_column_int64(stmt_, c); }
  double real(int c) const { return sqlite3_column_double(stmt_, c); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

constexpr const char* columns =
    "id, owner, state, input, options, submitted, started, finished, cancel, step, max_steps, k_md, "
    "error_estimate, seconds, status, message, porosity, results_to, gpus, details, scheduler_id, scheduler_state, "
    "scheduler_reason";

// A job queued again: no longer in Slurm (service.executor = slurm), submitted afresh when claimed.
constexpr const char* queued_again = "state = 'queued', scheduler_id = '', scheduler_state = '', scheduler_reason = ''";

JobState parse_state(const std::string& s) {
  if (s == "running") return JobState::running;
  if (s == "preparing") return JobState::preparing;
  if (s == "finished") return JobState::finished;
  if (s == "cancelled") return JobState::cancelled;
  return JobState::queued;
}

Job read_job(const Statement& q) {
  Job j;
  j.id = q.text(0);
  j.owner = q.text(1);
  j.state = parse_state(q.text(2));
  j.input = q.text(3);
  j.options = q.text(4);
  j.submitted_utc = q.text(5);
  j.started_utc = q.text(6);
  j.finished_utc = q.text(7);
  j.cancel_requested = q.integer(8) != 0;
  j.step = q.integer(9);
  j.max_steps = q.integer(10);
  j.k_md = q.real(11);
  j.error_estimate = q.real(12);
  j.seconds = q.real(13);
  j.status = q.text(14);
  j.message = q.text(15);
  j.porosity = q.real(16);
  j.results_to = q.text(17);
  j.gpus = static_cast<int>(q.integer(18));
  j.details = q.text(19);
  j.scheduler_id = q.text(20);
  j.scheduler_state = q.text(21);
  j.scheduler_reason = q.text(22);
  return j;
}

}  // namespace

const char* to_string(JobState s) {
  switch (s) {
    case JobState::queued: return "queued";
    case JobState::preparing: return "preparing";
    case JobState::running: return "running";
    case JobState::finished: return "finished";
    case JobState::cancelled: return "cancelled";
  }
  return "queued";
}

JobStore::JobStore(const std::filesystem::path& file) {
  if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError("service state " + file.string() + ": SQLite cannot open it (" + why +
                     "); check state_dir and its permissions");
  }
  sqlite3_busy_timeout(db_, 10000);
  try {
    // WAL: readers do not wait for the writer; synchronous=FULL: a committed job survives a power cut
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=FULL");
    exec("CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, owner TEXT NOT NULL, state TEXT NOT NULL, "
         "input TEXT NOT NULL, options TEXT NOT NULL, submitted TEXT NOT NULL, started TEXT NOT NULL DEFAULT '', "
         "finished TEXT NOT NULL DEFAULT '', cancel INTEGER NOT NULL DEFAULT 0, step INTEGER NOT NULL DEFAULT 0, "
         "max_steps INTEGER NOT NULL DEFAULT 0, k_md REAL NOT NULL DEFAULT 0, error_estimate REAL NOT NULL "
         "DEFAULT 0, seconds REAL NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT '', message TEXT NOT NULL "
         "DEFAULT '', seq INTEGER)");
    // columns added after the first release: a queue made by an older rockperm gains them
    std::vector<std::string> have;
    {
      Statement q(db_, "PRAGMA table_info(jobs)");
      while (q.step()) have.push_back(q.text(1));
    }
    const auto add = [&](const std::string& column, const std::string& type) {
      if (std::find(have.begin(), have.end(), column) == have.end()) exec("ALTER TABLE jobs ADD COLUMN " + column + " " + type);
    };
    add("porosity", "REAL NOT NULL DEFAULT 0");
    add("results_to", "TEXT NOT NULL DEFAULT ''");
    add("gpus", "INTEGER NOT NULL DEFAULT 1");
    add("details", "TEXT NOT NULL DEFAULT '{}'");
    add("scheduler_id", "TEXT NOT NULL DEFAULT ''");
    add("scheduler_state", "TEXT NOT NULL DEFAULT ''");
    add("scheduler_reason", "TEXT NOT NULL DEFAULT ''");
    exec("CREATE INDEX IF NOT EXISTS jobs_queue ON jobs (state, seq)");
    exec("CREATE INDEX IF NOT EXISTS jobs_owner ON jobs (owner, seq)");
  } catch (const Error& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError("service state " + file.string() + ": " + e.what());
  }
}

JobStore::~JobStore() { sqlite3_close(db_); }

void JobStore::exec(const std::string& sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string why = error ? error : "unknown error";
    sqlite3_free(error);
    throw RuntimeFailure("job database: " + why);
  }
}

void JobStore::insert(const Job& j) {
  const std::lock_guard lock(mutex_);
  Statement q(db_,
              "INSERT INTO jobs (id, owner, state, input, options, submitted, results_to, gpus, seq) VALUES (?, ?, "
              "'queued', ?, ?, ?, ?, ?, (SELECT IFNULL(MAX(seq), 0) + 1 FROM jobs))");
  q.bind(1, j.id).bind(2, j.owner).bind(3, j.input).bind(4, j.options).bind(5, utc_timestamp()).bind(6, j.results_to);
  q.bind(7, std::int64_t{j.gpus});
  q.step();
}

std::optional<Job> JobStore::get(const std::string& id) const {
  const std::lock_guard lock(mutex_);
  Statement q(db_, (std::string("SELECT ") + columns + " FROM jobs WHERE id = ?").c_str());
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return read_job(q);
}

std::vector<Job> JobStore::list(const std::string& owner) const {
  const std::lock_guard lock(mutex_);
  Statement q(db_, (std::string("SELECT ") + columns + " FROM jobs WHERE owner = ? ORDER BY seq DESC").c_str());
  q.bind(1, owner);
  std::vector<Job> jobs;
  while (q.step()) jobs.push_back(read_job(q));
  return jobs;
}

std::optional<Job> JobStore::find_by_results_to(const std::string& folder) const {
  const std::lock_guard lock(mutex_);
  Statement q(db_, (std::string("SELECT ") + columns + " FROM jobs WHERE results_to = ? LIMIT 1").c_str());
  q.bind(1, folder);
  if (!q.step()) return std::nullopt;
  return read_job(q);
}

std::int64_t JobStore::count(JobState state) const {
  const std::lock_guard lock(mutex_);
  Statement q(db_, "SELECT COUNT(*) FROM jobs WHERE state = ?");
  q.bind(1, std::string(to_string(state)));
  q.step();
  return q.integer(0);
}

std::vector<std::string> JobStore::ids_where(const char* sql, const std::string& value) const {
  const std::lock_guard lock(mutex_);
  Statement q(db_, sql);
  q.bind(1, value);
  std::vector<std::string> ids;
  while (q.step()) ids.push_back(q.text(0));
  return ids;
}

std::vector<std::string> JobStore::active_ids(const std::string& owner) const {
  return ids_where("SELECT id FROM jobs WHERE owner = ? AND state IN ('queued', 'preparing', 'running')", owner);
}

std::vector<std::string> JobStore::ended_before(const std::string& utc) const {
  return ids_where("SELECT id FROM jobs WHERE state IN ('finished', 'cancelled') AND finished != '' AND finished < ?",
                   utc);
}

void JobStore::remove(const std::string& id) {
  const std::lock_guard lock(mutex_);
  Statement q(db_, "DELETE FROM jobs WHERE id = ? AND state IN ('finished', 'cancelled')");
  q.bind(1, id);
  q.step();
}

std::optional<Job> JobStore::claim_next(bool one_gpu_only, bool preparing) {
  const std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    std::optional<Job> job;
    {
      Statement q(db_, (std::string("SELECT ") + columns + " FROM jobs WHERE state = 'queued' ORDER BY seq LIMIT 1")
                           .c_str());
      if (q.step()) job = read_job(q);
    }
    if (job && one_gpu_only && job->gpus > 1) job.reset();
    if (job) {
      Statement u(db_, "UPDATE jobs SET state = ?, started = ? WHERE id = ?");
      job->state = preparing ? JobState::preparing : JobState::running;
      u.bind(1, std::string(to_string(job->state))).bind(2, utc_timestamp()).bind(3, job->id);
      u.step();
    }
    exec("COMMIT");
    return job;
  } catch (...) {
    exec("ROLLBACK");
    throw;
  }
}

int JobStore::requeue_running(bool keep_scheduled) {
  const std::lock_guard lock(mutex_);
  exec(std::string("UPDATE jobs SET ") + queued_again + " WHERE state IN ('running', 'preparing')" +
       (keep_scheduled ? " AND scheduler_id = ''" : ""));
  return sqlite3_changes(db_);
}

void JobStore::set_scheduled(const std::string& id, const std::string& scheduler_id, const std::string& state,
                             const std::string& reason) {
  const std::lock_guard lock(mutex_);
  Statement q(db_, "UPDATE jobs SET scheduler_id = ?, scheduler_state = ?, scheduler_reason = ? WHERE id = ?");
  q.bind(1, scheduler_id).bind(2, state).bind(3, reason).bind(4, id);
  q.step();
}

std::vector<Job> JobStore::scheduled() const {
  const std::lock_guard lock(mutex_);
  Statement q(db_, (std::string("SELECT ") + columns +
                    " FROM jobs WHERE state = 'running' AND scheduler_id != '' ORDER BY seq")
                       .c_str());
  std::vector<Job> jobs;
  while (q.step()) jobs.push_back(read_job(q));
  return jobs;
}

void JobStore::update_progress(const std::string& id, std::int64_t step, std::int64_t max_steps, double k_md,
                               double error_estimate, double seconds) {
  const std::lock_guard lock(mutex_);
  Statement q(db_, "UPDATE jobs SET step = ?, max_steps = ?, k_md = ?, error_estimate = ?, seconds = ? WHERE id = ?");
  q.bind(1, step).bind(2, max_steps).bind(3, k_md).bind(4, error_estimate).bind(5, seconds).bind(6, id);
  q.step();
}

void JobStore::finish(const std::string& id, JobState state, const std::string& status, double k_md,
                      const std::string& message, double porosity, const std::string& details) {
  const std::lock_guard lock(mutex_);
  Statement q(db_,
              "UPDATE jobs SET state = ?, status = ?, k_md = ?, message = ?, finished = ?, porosity = ?, details = ? "
              "WHERE id = ?");
  q.bind(1, std::string(to_string(state))).bind(2, status).bind(3, k_md).bind(4, message).bind(5, utc_timestamp());
  q.bind(6, porosity).bind(7, details).bind(8, id);
  q.step();
}

void JobStore::requeue(const std::string& id) {
  const std::lock_guard lock(mutex_);
  Statement q(db_, (std::string("UPDATE jobs SET ") + queued_again + " WHERE id = ? AND state IN ('running', 'preparing')")
                       .c_str());
  q.bind(1, id);
  q.step();
}

void JobStore::mark_running(const std::string& id) {
  const std::lock_guard lock(mutex_);
  Statement q(db_, "UPDATE jobs SET state = 'running', started = ? WHERE id = ? AND state = 'preparing'");
  q.bind(1, utc_timestamp()).bind(2, id);
  q.step();
}

void JobStore::requeue_on(const std::string& id, int gpus) {
  const std::lock_guard lock(mutex_);
  Statement q(db_, (std::string("UPDATE jobs SET gpus = ?, seq = (SELECT IFNULL(MIN(seq), 0) - 1 FROM jobs), ") +
                    queued_again + " WHERE id = ?")
                       .c_str());
  q.bind(1, std::int64_t{gpus}).bind(2, id);
  q.step();
}

bool JobStore::cancel(const std::string& id, const std::string& owner) {
  const std::lock_guard lock(mutex_);
  Statement find(db_, "SELECT state FROM jobs WHERE id = ? AND owner = ?");
  find.bind(1, id).bind(2, owner);
  if (!find.step()) return false;
  const std::string state = find.text(0);
  if (state == "queued") {
    Statement q(db_, "UPDATE jobs SET state = 'cancelled', status = 'cancelled', finished = ? WHERE id = ?");
    q.bind(1, utc_timestamp()).bind(2, id);
    q.step();
  } else if (state == "running" || state == "preparing") {
    Statement q(db_, "UPDATE jobs SET cancel = 1 WHERE id = ?");
    q.bind(1, id);
    q.step();
  }
  return true;
}

bool JobStore::cancel_requested(const std::string& id) const {
  const std::lock_guard lock(mutex_);
  Statement q(db_, "SELECT cancel FROM jobs WHERE id = ?");
  q.bind(1, id);
  return q.step() && q.integer(0) != 0;
}

}  // namespace rockperm::app::service

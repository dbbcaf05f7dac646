// ProjectionRunner's public face, and the operator calls that need only
// the read store.
#include "projections/runner.h"

namespace indelible {

namespace {

ProjectionStatus ToStatus(const projections::MetaRow& row) {
  ProjectionStatus status;
  status.name = row.name;
  status.version = row.version;
  status.generation = row.generation;
  status.position = Position(row.position);
  if (row.blocked_at) status.blocked_at = Position(*row.blocked_at);
  status.blocked_reason = row.blocked_reason;
  status.parked = row.parked;
  status.building_generation = row.building_generation;
  status.building_position = Position(row.building_position);
  return status;
}

}  // namespace

ProjectionRunner::ProjectionRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProjectionRunner::~ProjectionRunner() { Stop(); }

Result<std::unique_ptr<ProjectionRunner>> ProjectionRunner::Open(Store& store,
                                                                 std::string_view read_store_url,
                                                                 Projection projection,
                                                                 ProjectionOptions options) {
  if (Status s = projections::ValidateProjection(projection); !s.ok()) return s;
  auto impl =
      std::make_unique<Impl>(store, std::string(read_store_url), std::move(projection), options);
  // Connects now, so a bad URL or an unreachable database shows at once,
  // and makes the first copy, so queries find its views.
  auto control = ReadStore::Open(read_store_url);
  if (!control.ok()) return control.status();
  {
    MutexLock lock(&impl->control_mu_);  // not shared yet: uncontended, for the analysis
    impl->control_ = std::move(*control);
  }
  if (Status s = impl->Connect(); !s.ok()) return s;
  if (Status s = impl->EnsureCopy(); !s.ok()) return s;
  return std::unique_ptr<ProjectionRunner>(new ProjectionRunner(std::move(impl)));
}

void ProjectionRunner::Start() {
  if (impl_->thread_.joinable()) return;
  impl_->thread_ = std::thread([impl = impl_.get()] { impl->Loop(); });
}

void ProjectionRunner::Stop() { impl_->Stop(); }

Result<std::uint64_t> ProjectionRunner::CatchUp() {
  if (impl_->thread_.joinable())
    return Status::Invalid("projection", "CatchUp runs only while the runner is not started");
  std::uint64_t total = 0;
  for (;;) {
    auto step = impl_->Step(std::chrono::milliseconds(0));
    if (!step.ok()) return step.status();
    total += *step;
    if (*step == 0 && impl_->idle()) return total;
  }
}

Status ProjectionRunner::Rebuild(const std::function<void(const RebuildProgress&)>& progress) {
  return impl_->Rebuild(progress);
}

bool ProjectionRunner::WaitFor(Position position, std::chrono::milliseconds timeout) {
  return impl_->WaitFor(position, timeout);
}

Result<ProjectionStatus> ProjectionRunner::status() {
  MutexLock lock(&impl_->control_mu_);
  auto row = projections::ReadRow(*impl_->control_, impl_->projection_.name);
  if (!row.ok()) return row.status();
  if (!row->has_value()) {
    ProjectionStatus none;
    none.name = impl_->projection_.name;
    return none;  // not started yet: no copy
  }
  ProjectionStatus status = ToStatus(**row);
  {
    MutexLock error_lock(&impl_->mu_);
    if (!impl_->last_error_.ok()) status.last_error = impl_->last_error_.ToString();
  }
  return status;
}

Status ProjectionRunner::Retry() {
  MutexLock lock(&impl_->control_mu_);
  return projections::SetOperatorAction(*impl_->control_, impl_->projection_.name, "retry");
}

Status ProjectionRunner::Skip() {
  MutexLock lock(&impl_->control_mu_);
  return projections::SetOperatorAction(*impl_->control_, impl_->projection_.name, "skip");
}

const Projection& ProjectionRunner::projection() const { return impl_->projection_; }

Result<std::vector<ProjectionStatus>> ListProjections(ReadStore& read_store) {
  if (Status s = projections::EnsureMetaTables(read_store); !s.ok()) return s;
  auto rows = projections::ReadRows(read_store);
  if (!rows.ok()) return rows.status();
  std::vector<ProjectionStatus> out;
  for (const auto& row : *rows) out.push_back(ToStatus(row));
  return out;
}

Status RetryProjection(ReadStore& read_store, std::string_view name) {
  return projections::SetOperatorAction(read_store, name, "retry");
}

Status SkipProjection(ReadStore& read_store, std::string_view name) {
  return projections::SetOperatorAction(read_store, name, "skip");
}

}  // namespace indelible

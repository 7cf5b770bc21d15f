// An in-memory Provider for tests. Pods get ids "p1", "p2", ... and start running with an SSH
// endpoint. Knobs make it misbehave the way real clouds do: queued errors per operation, a
// delete that is accepted but takes effect only later, a create that times out after making the
// pod. Every call is recorded in calls_ ("create burst-j1-gpu", "get p1", "delete p1", "list").
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "burst/provider.h"

namespace burst {

class FakeProvider : public Provider {
 public:
  explicit FakeProvider(std::string name = "fake") : name_(std::move(name)) {}

  // --- Knobs -----------------------------------------------------------------------------------
  // One entry per call, popped front: an Error fails that call (with no effect), nullopt lets it
  // behave normally. An empty queue means every further call behaves normally.
  std::deque<std::optional<Error>> create_errors;
  std::deque<std::optional<Error>> delete_errors;
  std::deque<std::optional<Error>> get_errors;
  std::deque<std::optional<Error>> list_errors;

  // A delete is accepted, but get_pod (and list_pods) still show the pod, stopping, for this many
  // get_pod calls; the next get_pod says kNotFound. Negative: the delete never takes effect.
  int delete_takes_effect_after_n_gets = 0;

  // create_pod makes the pod (named as requested) but reports kTimeout, as a lost response would.
  bool create_fails_after_creating = false;

  // Called at the start of create_pod, before anything else happens.
  std::function<void(const PodRequest&)> on_create;
  // Called by get_pod with the pod it is about to return (not deleting, not gone): may change it
  // for good, e.g. its state, as a provider's status does.
  std::function<void(Pod&)> on_get;
  // Called at the start of delete_pod, before anything else happens.
  std::function<void(const std::string& id)> on_delete;

  std::vector<Offer> gpu_offers;
  std::vector<Offer> cpu_offers;

  // A second fake in one test: its pods' ids ("<id_prefix>1", ...) and SSH hosts
  // ("10.<host_net>.0.1", ...) differ from the first's.
  std::string id_prefix = "p";
  int host_net = 0;

  // --- Record ----------------------------------------------------------------------------------
  std::vector<std::string> calls_;
  std::vector<PodRequest> requests_;

  // --- Inspection ------------------------------------------------------------------------------
  // The pod (deleted or not) with that id, if it was ever created.
  const Pod* find(const std::string& id) const;
  // Whether a pod with that name exists and has not been removed.
  bool exists_named(const std::string& name) const;
  // Puts a pod straight into the account, as if created earlier (e.g. by another process).
  Pod add_existing(const std::string& name, PodState state = PodState::kRunning);

  // --- Provider --------------------------------------------------------------------------------
  std::string name() const override { return name_; }
  Result<std::vector<Offer>> offers(bool gpu) override;
  Result<Volume> ensure_volume(const std::string& name, int size_gb,
                               const std::string& region) override;
  Result<std::vector<Volume>> list_volumes() override;
  Result<Pod> create_pod(const PodRequest& request) override;
  Result<Pod> get_pod(const std::string& id) override;
  Result<std::vector<Pod>> list_pods() override;
  Status delete_pod(const std::string& id) override;

 private:
  struct Entry {
    Pod pod;
    bool removed = false;     // gone for good: kNotFound
    bool deleting = false;    // delete accepted, not yet in effect
    int gets_until_gone = 0;  // while deleting; negative: never
  };

  Pod make_pod(const std::string& name, PodState state, const std::string& gpu_type);
  static std::optional<Error> pop(std::deque<std::optional<Error>>& q);

  std::string name_;
  int next_id_ = 1;
  std::map<std::string, Entry> pods_;  // by id
  std::vector<Volume> volumes_;
};

}  // namespace burst

// JobPhases' run phase on a pod of several GPU groups (job/replica_step.h, plan/pod_layout.h) and
// the step image's pull (job/step_container.h); out of job_phases.cpp to keep that file small.
#include <algorithm>
#include <chrono>

#include "job/job_phases.h"
#include "job/replica_step.h"

namespace burst {

int JobPhases::rented_gpus() const {
  // The offer's count is what the plan priced; a hand-made offer (tests, --offers) may leave it 0.
  return std::max({1, in_.plan.gpu.gpu_count, in_.spec.resources.count_for(in_.plan.gpu.gpu_type)});
}

Outcome JobPhases::run_replicas(std::string* detail) {
  const double max_s = in_.spec.budget.max_runtime_seconds.value_or(0);
  const PodLayout& l = in_.plan.layout;
  // A layout priced for another count is never run (Plan::layout follows the offer rented).
  if (l.replicas <= 1 || l.gpus != rented_gpus())
    return step("run", in_.spec.run, gpu_, max_s, detail);
  // Reattached: the same wrapper, its files untouched (a running copy may be reading its
  // script). A launched step is followed; one the previous burstd never launched starts with the
  // files it wrote before the launch.
  if (in_.reattach)
    return step("run", replica_wrapper(l, gpu_.paths.pod_dir, in_.has_items_file), gpu_, max_s,
                detail);
  auto wrapper = prepare_replicas(*gpu_.session, gpu_.paths, l, in_.spec.run,
                                  in_.has_items_file ? &in_.items : nullptr);
  if (!wrapper.ok()) return failed(wrapper.error(), "run", detail);
  say("run: " + pod_layout_text(l) + " on pod " + gpu_.record.pod_id +
      (in_.has_items_file ? ", each its share of the items" : "") + " (lines prefixed [r<i>])");
  const Outcome o = step("run", *wrapper, gpu_, max_s, detail);
  *detail += (detail->empty() ? "" : "; ") + pod_layout_text(l);
  return o;
}

Outcome JobPhases::pull_step_image(PodHandle& pod, const std::function<bool()>& stop,
                                   std::string* detail) {
  const std::string& image = pod.container->image;
  const MonoTime start = d_.clock.mono_now();
  auto elapsed = [&] {
    return static_cast<int>(std::chrono::duration<double>(d_.clock.mono_now() - start).count());
  };
  say("pulling the spec's image " + image + " on pod " + pod.record.pod_id +
      " (its steps run in it, with docker)");
  Status st = pull_image(
      *pod.session, image,
      [&](bool is_err, const std::string& line) {
        moving();
        remote_line(is_err, line);
      },
      stop);
  if (!st.ok()) return failed(st.error(), "pull image", detail);
  say("image " + image + " ready in " + std::to_string(elapsed()) + " s");
  return unless_stopped("pull image", detail);
}

}  // namespace burst

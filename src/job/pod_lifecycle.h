// Creating and deleting pods so that none can be lost: the store hears of a pod before the
// provider does, and a pod counts as deleted only once the provider says it is gone.
#pragma once

#include <functional>
#include <string>

#include "burst/clock.h"
#include "burst/fault_observer.h"
#include "burst/provider.h"
#include "burst/store.h"

namespace burst {

// Fail closed: a create that fails ambiguously is resolved by finding the pod by name in the
// provider's pod list, and reap finds strays there. So before any create the runner checks the
// list reads; an error means: create nothing.
//
// Retries live in one place, the driver's API call (http/api_call.h): an error a provider call
// returns here has already been retried where that is safe, so nothing in this file retries it
// again. What these functions repeat is polling for a state, on the clock.
Status check_list_readable(Provider& provider);

// Writes a "creating" row (name known, id not yet), calls create, then records the id ("alive").
// On a create error the row stays "creating" when the provider may have made the pod anyway
// (timeouts, 5xx) so reap can find it by name, or becomes "create-failed" when it surely did not.
// `faults` hears "after-create" (made, id not yet recorded).
Result<Pod> create_recorded_pod(PodStore& store, Provider& provider, Clock& clock,
                                const PodRequest& request, PodRecord* record,
                                FaultObserver* faults = nullptr);

// Polls until the pod is running with an SSH endpoint, or `deadline` (monotonic), or
// should_stop(). A pod that is gone or stopping (stopped, exited, offline, or a start error the
// provider reported) before that is lost: kUnavailable at once, with the provider's words
// (Pod::status_note).
// `faults` hears "wait-ssh" before each poll; `on_poll` sees each answer (the status to show).
Result<Pod> wait_until_running(Provider& provider, Clock& clock, const std::string& pod_id,
                               MonoTime deadline, const std::function<bool()>& should_stop,
                               FaultObserver* faults = nullptr,
                               const std::function<void(const Pod&)>& on_poll = nullptr);

// After a pod is running: its id must appear in the provider's pod list, the list burst relies on
// to find pods it lost track of. A list that hides it (an API change) is kUnavailable, so the job
// stops while the pod can still be deleted by id. Polls briefly for a list that lags.
Status check_pod_listed(Provider& provider, Clock& clock, const std::string& pod_id);

// Deletes the pod behind `record` (looking it up by name when the id was never learned), then
// polls until the provider reports it gone. Only then marks the row
// "deleted" with the confirmation time. On failure the row stays "deleting" for `burst reap`.
// A row the store already has deleted (another host of a team got there first) is taken as it
// is: its confirmation time ends the pod's bill, never a later one of this host's.
// `faults` hears "after-delete" (accepted, not yet verified).
Status delete_and_verify(PodStore& store, Provider& provider, Clock& clock, PodRecord* record,
                         FaultObserver* faults = nullptr);

}  // namespace burst

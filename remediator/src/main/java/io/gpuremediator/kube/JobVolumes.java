package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.gpuremediator.workload.JobVolume;
import java.util.List;

/** A node Job's volumes as the pod spec writes them. */
final class JobVolumes {
  private JobVolumes() {}

  static List<Volume> volumes(List<JobVolume> volumes) {
    return volumes.stream().map(JobVolumes::volume).toList();
  }

  private static Volume volume(JobVolume v) {
    if (v instanceof JobVolume.HostPath h) {
      return new VolumeBuilder().withName(h.name()).withNewHostPath().withPath(h.path()).withType("Directory")
          .endHostPath().build();
    }
    JobVolume.Claim c = (JobVolume.Claim) v;
    return new VolumeBuilder().withName(c.name()).withNewPersistentVolumeClaim().withClaimName(c.claim())
        .endPersistentVolumeClaim().build();
  }

  static List<VolumeMount> mounts(List<JobVolume> volumes) {
    return volumes.stream().map(v -> new VolumeMountBuilder().withName(v.name()).withMountPath(v.mountPath()).build())
        .toList();
  }
}

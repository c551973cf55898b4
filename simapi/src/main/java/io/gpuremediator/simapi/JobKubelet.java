package io.gpuremediator.simapi;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The kubelet and Job controller of an emulated cluster for the Jobs it is given: each Job's one container runs its
 * command as a local process, against fakes of the tools a GPU node's containers see, built from recorded real outputs
 * ({@code simapi/node-tools}, reading {@code tests/real}): {@code nvidia-smi} on the container's PATH (the NVIDIA
 * runtime injects it), and {@code nvidia-bug-report.sh} only where the node's driver puts it, never on the PATH (the
 * runtime injects nvidia-smi, nvidia-debugdump and nvidia-persistenced only; libnvidia-container src/nvc_info.c);
 * and what an image holds only in that image: {@code images/<repository>/bin} is on the PATH of a container whose image
 * is that repository ({@code dcgmi} in NVIDIA's {@code dcgm} image). A node labelled {@value #FAULTY_MEMORY_LABEL}
 * with a GPU index has that GPU's memory faulty, as the fake dcgmi's diagnostic finds it; one labelled
 * {@value #DIAG_DOCUMENT_LABEL} answers with that recorded fault document. A
 * node labelled {@value #DRIVER_CONTAINER_LABEL}=true runs the GPU Operator's driver container, whose root is the node's
 * {@code /run/nvidia/driver} (its DaemonSet selects nodes on that label and mounts {@code /run/nvidia} Bidirectional:
 * tests/real/gpu-operator/v26.7.0-dra/driver-0500_daemonset.yaml); any other has the driver installed on the host.
 *
 * <p>Each node has a root directory of its own; a hostPath volume is that directory's path, and a PersistentVolumeClaim
 * volume a directory of the claim's own, shared by every node (a ReadWriteMany claim). A pod whose claim does not exist
 * stays Pending, as the scheduler leaves it ({@code persistentvolumeclaim "NAME" not found}), and its Job runs on until
 * its deadline. There is no mount namespace here: a mount is its directory substituted for the mount path where the
 * container's environment or command names it. A GPU's state for the fake nvidia-smi (persistence mode, its holder)
 * lives in the node's {@code gpu} directory; while a pod of DCGM or its exporter ({@code nvidia-dcgm...}, the GPU
 * Operator's DaemonSets) runs on the node, its host engine holds every GPU, and the fake nvidia-smi refuses a reset
 * as the real one does. The process's output is the pod's log (both streams, as the log API
 * serves them); its exit status the pod's phase and the Job's condition ({@code Complete}, or {@code Failed} with
 * {@code BackoffLimitExceeded}, or {@code PodFailurePolicy} where a rule of its pod failure policy fails it:
 * {@link PodFailurePolicies}); past {@code activeDeadlineSeconds} it is killed and the Job fails {@code DeadlineExceeded}.
 */
public final class JobKubelet implements AutoCloseable {
  /** The GPU Operator's label for nodes its driver DaemonSet runs on. */
  public static final String DRIVER_CONTAINER_LABEL = "nvidia.com/gpu.deploy.driver";
  /** A node labelled so, with a GPU index, has faulty memory on that GPU (what no repair mends). */
  public static final String FAULTY_MEMORY_LABEL = "sim.gpu-remediator.io/faulty-memory-gpu";
  /**
   * A node labelled so answers {@code dcgmi diag -j} with the recorded fault document it names
   * ({@code tests/real/dcgm/diag-v4-<value>.json}: {@code pcie-replay-fail}, {@code nvlink-down-fail}, ...).
   */
  public static final String DIAG_DOCUMENT_LABEL = "sim.gpu-remediator.io/diag-document";
  private static final String BUG_REPORT = "nvidia-bug-report.sh";
  /** containerd's message for a container whose command is not in its image, as a pod's status shows it. */
  private static final String START_ERROR = "failed to create containerd task: failed to create shim task: OCI runtime"
      + " create failed: runc create failed: unable to start container process: error during container init: exec:"
      + " \"%s\": executable file not found in $PATH: unknown";

  private final KubernetesClient client;
  private final EmulatedApiServer server;
  private final Path tools;
  private final Path recorded;
  private final Path work;
  private final String namespace;
  private final Predicate<Job> runs;
  private final Set<String> taken = ConcurrentHashMap.newKeySet();
  private final Map<String, String> logs = new ConcurrentHashMap<>();
  private final List<Process> running = new ArrayList<>();
  private final ScheduledExecutorService poll = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "sim-kubelet"));
  private final ExecutorService pods = Executors.newCachedThreadPool(r -> daemon(r, "sim-kubelet-pod"));

  /**
   * A kubelet for the Jobs of {@code namespace} that {@code runs} accepts.
   *
   * @param tools the fakes ({@code simapi/node-tools}): {@code bin/} is on every container's PATH, {@code driver/} is
   *     installed on the nodes
   * @param recorded the recorded real outputs the fakes answer from ({@code tests/real})
   * @param work where node roots, GPU states and claims live
   */
  public JobKubelet(EmulatedApiServer server, String namespace, Path tools, Path recorded, Path work,
      Predicate<Job> runs) {
    this.server = server;
    this.client = server.client();
    this.namespace = namespace;
    this.tools = tools.toAbsolutePath();
    this.recorded = recorded.toAbsolutePath();
    this.work = work.toAbsolutePath();
    this.runs = runs;
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** Starts looking for new Jobs, five times a second. */
  public JobKubelet start() {
    poll.scheduleWithFixedDelay(this::tick, 0, 200, TimeUnit.MILLISECONDS);
    return this;
  }

  /** The node's root directory: what a hostPath of {@code /} mounts. */
  public Path root(String node) {
    return work.resolve("nodes").resolve(node).resolve("root");
  }

  /** Sets a node's GPU as the fake nvidia-smi reads it: its UUID, persistence mode, and the client holding it. */
  public void gpu(String node, String uuid, boolean persistenceMode, String holder) {
    Path gpu = gpuState(node);
    write(gpu.resolve("uuid"), uuid + "\n");
    write(gpu.resolve("persistence"), (persistenceMode ? "Enabled" : "Disabled") + "\n");
    write(gpu.resolve("holder"), holder + "\n");
  }

  /** What the fake nvidia-smi was asked on the node, one call a line. */
  public List<String> nvidiaSmiCalls(String node) {
    Path calls = gpuState(node).resolve("calls");
    try {
      return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What the pod of the Job wrote (empty while it runs). */
  public String log(String job) {
    return logs.getOrDefault(job, "");
  }

  /** The directory standing for a PersistentVolumeClaim's volume. */
  public Path claim(String name) {
    return work.resolve("claims").resolve(name);
  }

  private Path gpuState(String node) {
    return work.resolve("nodes").resolve(node).resolve("gpu");
  }

  private void tick() {
    try {
      for (Job job : client.batch().v1().jobs().inNamespace(namespace).list().getItems()) {
        boolean done = job.getStatus() != null && job.getStatus().getConditions() != null
            && !job.getStatus().getConditions().isEmpty();
        if (!done && runs.test(job) && taken.add(job.getMetadata().getUid())) {
          pods.submit(() -> run(job));
        }
      }
    } catch (RuntimeException e) {
      System.err.println("sim-kubelet: " + e);
    }
  }

  private void run(Job job) {
    String name = job.getMetadata().getName();
    PodSpec spec = job.getSpec().getTemplate().getSpec();
    String node = spec.getNodeName();
    String pod = name + "-" + job.getMetadata().getUid().substring(0, 5);
    try {
      Map<String, Path> mounts = new LinkedHashMap<>();
      Optional<String> missingClaim = mounts(spec, node, mounts);
      if (missingClaim.isPresent()) {
        pending(job, pod, node, missingClaim.get());
        return;
      }
      Node n = client.nodes().withName(node).get();
      install(node, n);
      dcgmHolds(node);
      faultyMemory(node, n);
      createPod(job, pod, node, "Running");
      running(job);
      Container c = spec.getContainers().get(0);
      List<String> command = new ArrayList<>();
      if (c.getCommand() != null) {
        c.getCommand().forEach(arg -> command.add(mounted(arg, mounts)));
      }
      if (c.getArgs() != null) {
        c.getArgs().forEach(arg -> command.add(mounted(arg, mounts)));
      }
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
      Path cwd = Files.createDirectories(work.resolve("pods").resolve(pod));
      pb.directory(cwd.toFile());
      Map<String, String> env = pb.environment();
      env.clear();
      env.put("PATH", imageBin(c.getImage()).map(b -> b + ":").orElse("") + tools.resolve("bin")
          + ":/usr/local/bin:/usr/bin:/bin");
      env.put("HOME", cwd.toString());
      env.put("FAKE_GPU_STATE", Files.createDirectories(gpuState(node)).toString());
      env.put("FAKE_RECORDED", recorded.toString());
      if (c.getEnv() != null) {
        for (EnvVar v : c.getEnv()) {
          env.put(v.getName(), v.getValue() == null ? "" : mounted(v.getValue(), mounts));
        }
      }
      Optional<String> executable = onPath(command.get(0), env.get("PATH"));
      if (executable.isEmpty()) {
        // The image lacks the command: the container never starts, so it writes no log; containerd's words are the
        // terminated state's message, its reason StartError, exit code 128 (tests/real/SOURCES.md).
        logs.put(name, "");
        finish(job, pod, "Failed", 128, "BackoffLimitExceeded", "StartError", START_ERROR.formatted(command.get(0)));
        return;
      }
      command.set(0, executable.get());
      Process p = pb.start();
      synchronized (running) {
        running.add(p);
      }
      long deadline = job.getSpec().getActiveDeadlineSeconds() == null ? 3600 : job.getSpec().getActiveDeadlineSeconds();
      byte[][] out = new byte[1][];
      Thread reader = daemon(() -> {
        try {
          out[0] = p.getInputStream().readAllBytes();
        } catch (IOException e) {
          out[0] = ("sim-kubelet: " + e).getBytes(StandardCharsets.UTF_8);
        }
      }, "sim-kubelet-log");
      reader.start();
      boolean ended = p.waitFor(deadline, TimeUnit.SECONDS);
      if (!ended) {
        p.destroyForcibly().waitFor();
      }
      reader.join(5_000);
      String log = out[0] == null ? "" : new String(out[0], StandardCharsets.UTF_8);
      logs.put(name, log);
      server.log(namespace, pod, log);
      int exit = ended ? p.exitValue() : 137;
      finish(job, pod, exit == 0 ? "Succeeded" : "Failed", exit,
          ended ? (exit == 0 ? null : "BackoffLimitExceeded") : "DeadlineExceeded");
    } catch (IOException e) {
      server.log(namespace, pod, "sim-kubelet: " + e);
      finish(job, pod, "Failed", 128, "BackoffLimitExceeded");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The local directory of each volume mount; a claim that does not exist is returned instead. */
  private Optional<String> mounts(PodSpec spec, String node, Map<String, Path> mounts) throws IOException {
    Container c = spec.getContainers().get(0);
    for (VolumeMount m : c.getVolumeMounts() == null ? List.<VolumeMount>of() : c.getVolumeMounts()) {
      Volume v = spec.getVolumes().stream().filter(x -> x.getName().equals(m.getName())).findFirst().orElseThrow();
      if (v.getHostPath() != null) {
        Path dir = root(node).resolve(v.getHostPath().getPath().replaceFirst("^/", ""));
        mounts.put(m.getMountPath(), Files.createDirectories(dir));
      } else if (v.getPersistentVolumeClaim() != null) {
        String claim = v.getPersistentVolumeClaim().getClaimName();
        if (client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get() == null) {
          return Optional.of(claim);
        }
        mounts.put(m.getMountPath(), Files.createDirectories(claim(claim)));
      }
    }
    return Optional.empty();
  }

  /** The argument with a mount path it starts with replaced by the mount's directory. */
  private static String mounted(String arg, Map<String, Path> mounts) {
    for (Map.Entry<String, Path> m : mounts.entrySet()) {
      String path = m.getKey().replaceFirst("/$", "");
      if (arg.equals(path) || arg.startsWith(path + "/")) {
        return m.getValue() + arg.substring(path.length());
      }
    }
    return arg;
  }

  /**
   * A running DCGM or exporter pod on the node holds its GPUs (the holder the fake nvidia-smi reads), else none does. A
   * node whose GPU no test set up has one with persistence mode on, as the GPU Operator's driver leaves it.
   */
  private void dcgmHolds(String node) {
    if (!Files.exists(gpuState(node).resolve("uuid"))) {
      gpu(node, "GPU-" + UUID.nameUUIDFromBytes(node.getBytes(StandardCharsets.UTF_8)), true, "none");
    }
    Path holder = gpuState(node).resolve("holder");
    boolean dcgm = client.pods().inAnyNamespace().list().getItems().stream().anyMatch(p -> node.equals(
        p.getSpec().getNodeName()) && p.getMetadata().getName().startsWith("nvidia-dcgm")
        && "Running".equals(p.getStatus() == null ? null : p.getStatus().getPhase()));
    String now = Files.exists(holder) ? read(holder).strip() : "none";
    if (dcgm) {
      write(holder, "dcgm\n");
    } else if (now.equals("dcgm")) {
      write(holder, "none\n");
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The command as the container's PATH finds it (a path is taken as it is), as exec does in the container. */
  private static Optional<String> onPath(String command, String path) {
    if (command.contains("/")) {
      return Optional.of(command);
    }
    for (String dir : path.split(":")) {
      Path candidate = Path.of(dir).resolve(command);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate.toString());
      }
    }
    return Optional.empty();
  }

  /** The fakes of what the image holds: {@code images/<its repository's last path element>/bin}, where there are any. */
  private Optional<Path> imageBin(String image) {
    if (image == null) {
      return Optional.empty();
    }
    String repository = image.replaceFirst("[@].*$", "").replaceFirst(":[^:/]*$", "");
    Path bin = tools.resolve("images").resolve(repository.substring(repository.lastIndexOf('/') + 1)).resolve("bin");
    return Files.isDirectory(bin) ? Optional.of(bin) : Optional.empty();
  }

  /** The GPU the node's {@value #FAULTY_MEMORY_LABEL} label names has one faulty memory element; none, none has. */
  private void faultyMemory(String node, Node n) {
    String gpu = n == null || n.getMetadata().getLabels() == null ? null
        : n.getMetadata().getLabels().get(FAULTY_MEMORY_LABEL);
    write(gpuState(node).resolve("faulty-memory"), gpu == null ? "" : gpu + " 1\n");
    String document = n == null || n.getMetadata().getLabels() == null ? null
        : n.getMetadata().getLabels().get(DIAG_DOCUMENT_LABEL);
    write(gpuState(node).resolve("diag-document"), document == null ? "" : document + "\n");
  }

  /** The node's driver, where its install puts it, and a /tmp in each root a chroot can write to. */
  private void install(String node, Node n) throws IOException {
    boolean operator = n != null && n.getMetadata().getLabels() != null
        && "true".equals(n.getMetadata().getLabels().get(DRIVER_CONTAINER_LABEL));
    Path driverRoot = operator ? root(node).resolve("run/nvidia/driver") : root(node);
    Path bin = Files.createDirectories(driverRoot.resolve("usr/bin"));
    Files.createDirectories(driverRoot.resolve("tmp"));
    Files.copy(tools.resolve("driver").resolve(BUG_REPORT), bin.resolve(BUG_REPORT), StandardCopyOption.REPLACE_EXISTING);
    bin.resolve(BUG_REPORT).toFile().setExecutable(true);
  }

  private void createPod(Job job, String pod, String node, String phase) {
    client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName(pod).withNamespace(namespace)
        .addToLabels("job-name", job.getMetadata().getName())
        .addToLabels("batch.kubernetes.io/job-name", job.getMetadata().getName())
        .addToLabels("controller-uid", job.getMetadata().getUid())
        .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName(job.getMetadata().getName())
        .withUid(job.getMetadata().getUid()).withController(true).endOwnerReference().endMetadata()
        .withSpec(job.getSpec().getTemplate().getSpec())
        .withNewStatus().withPhase(phase).endStatus().build()).create();
  }

  /**
   * The Job as its controller shows it while its pod runs: one active, one Ready ({@code status.active},
   * {@code status.ready}: a pod without a readiness probe is Ready once its container started).
   */
  private void running(Job job) {
    Job current = client.batch().v1().jobs().inNamespace(namespace).withName(job.getMetadata().getName()).get();
    if (current != null) {
      current.setStatus(new JobStatusBuilder().withActive(1).withReady(1).build());
      client.batch().v1().jobs().inNamespace(namespace).resource(current).updateStatus();
    }
  }

    private void pending(Job job, String pod, String node, String claim) {
    createPod(job, pod, node, "Pending");
    client.pods().inNamespace(namespace).withName(pod).editStatus(p -> {
      p.getStatus().setConditions(List.of(new PodConditionBuilder()
          .withType("PodScheduled").withStatus("False").withReason("Unschedulable")
          .withMessage("persistentvolumeclaim \"" + claim + "\" not found").build()));
      return p;
    });
  }

  private void finish(Job job, String pod, String phase, int exit, String reason) {
    finish(job, pod, phase, exit, reason, exit == 0 ? "Completed" : "Error", null);
  }

  private void finish(Job job, String pod, String phase, int exit, String reason, String terminated, String message) {
    client.pods().inNamespace(namespace).withName(pod).editStatus(p -> {
      p.getStatus().setPhase(phase);
      p.getStatus().setContainerStatuses(List.of(new ContainerStatusBuilder()
          .withName(job.getSpec().getTemplate().getSpec().getContainers().get(0).getName()).withNewState()
          .withNewTerminated().withExitCode(exit).withReason(terminated).withMessage(message).endTerminated()
          .endState().build()));
      return p;
    });
    Job current = client.batch().v1().jobs().inNamespace(namespace).withName(job.getMetadata().getName()).get();
    if (current == null) {
      return;
    }
    boolean ok = "Succeeded".equals(phase);
    String container = job.getSpec().getTemplate().getSpec().getContainers().get(0).getName();
    Optional<String> failJob = "DeadlineExceeded".equals(reason) ? Optional.empty()
        : PodFailurePolicies.failJob(job, container, namespace, pod, exit);
    if (failJob.isPresent()) { // the controller's interim FailureTarget first, then Failed, both of the rule
      current.setStatus(new JobStatusBuilder().withSucceeded(0).withFailed(1).addNewCondition().withType("FailureTarget")
          .withStatus("True").withReason(PodFailurePolicies.REASON).withMessage(failJob.get()).endCondition()
          .addNewCondition().withType("Failed").withStatus("True").withReason(PodFailurePolicies.REASON)
          .withMessage(failJob.get()).endCondition().build());
    } else {
      current.setStatus(new JobStatusBuilder().withSucceeded(ok ? 1 : 0).withFailed(ok ? 0 : 1).addNewCondition()
          .withType(ok ? "Complete" : "Failed").withStatus("True").withReason(reason).endCondition().build());
    }
    client.batch().v1().jobs().inNamespace(namespace).resource(current).updateStatus();
  }

  private static void write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    poll.shutdownNow();
    synchronized (running) {
      running.forEach(Process::destroyForcibly);
    }
    pods.shutdownNow();
    client.close();
  }
}

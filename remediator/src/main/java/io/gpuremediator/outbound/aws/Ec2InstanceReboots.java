package io.gpuremediator.outbound.aws;

import io.gpuremediator.outbound.InstanceReboots;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.ProviderId;
import java.net.URI;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * {@link InstanceReboots} through EC2 {@code RebootInstances}, with the same client settings as the Auto Scaling one
 * (the SDK does not retry; the loop does, only after an answer that says the reboot was not applied). EC2 has no
 * "reboot pending" to look up, so a request sent without an answer is reported as maybe applied and never sent again.
 * The IAM policy needs exactly {@code ec2:RebootInstances}.
 */
public final class Ec2InstanceReboots implements InstanceReboots, AutoCloseable {
  private static final String TARGET = "aws_ec2";

  private final Ec2Client client;
  private final OutboundListener listener;

  /** A client for this region (and endpoint, for tests), with the SDK's default credentials chain. */
  public static Ec2InstanceReboots create(String region, Optional<URI> endpoint, OutboundListener listener) {
    return create(region, endpoint, DefaultCredentialsProvider.builder().build(), listener);
  }

  /** A client with these credentials. */
  public static Ec2InstanceReboots create(String region, Optional<URI> endpoint, AwsCredentialsProvider credentials,
      OutboundListener listener) {
    return new Ec2InstanceReboots(AwsCalls.build(Ec2Client.builder(), region, endpoint, credentials), listener);
  }

  private Ec2InstanceReboots(Ec2Client client, OutboundListener listener) {
    this.client = client;
    this.listener = listener;
  }

  @Override
  public void reboot(ProviderId.Aws instance) throws OutboundException {
    AwsCalls.call(listener, TARGET, "EC2", () -> client.rebootInstances(r -> r.instanceIds(instance.instanceId())));
  }

  @Override
  public void close() {
    client.close();
  }
}

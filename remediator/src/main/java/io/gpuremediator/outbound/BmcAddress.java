package io.gpuremediator.outbound;

import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one server's BMC is and how to log in to it, as an operator wrote it ({@code cloud.redfish.bmcs}): never read
 * from the Node, whose own kubelet can write its annotations.
 *
 * @param url {@code https://<bmc>} or {@code https://<bmc>/redfish/v1/Systems/<id>} (plain http only where the config
 *     says {@code insecure_http: true})
 * @param credentialsFile its own {@code user:password} file; empty: {@code cloud.redfish.credentials_file}
 * @param source where it was written, for messages ({@code bmcs.yaml:4})
 */
public record BmcAddress(URI url, Optional<Path> credentialsFile, String source) {
  /** Checks the parts. */
  public BmcAddress {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(credentialsFile, "credentialsFile");
    Objects.requireNonNull(source, "source");
  }
}

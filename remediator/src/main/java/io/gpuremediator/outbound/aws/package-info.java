/**
 * Instance replacement and reboots on AWS: the only package that imports the AWS SDK for Java v2 (Auto Scaling and EC2, with
 * the URL-connection HTTP client, so the SDK brings no second Netty).
 *
 * <p>Uses: {@code outbound}; libraries: {@code software.amazon.awssdk}.
 */
package io.gpuremediator.outbound.aws;

/**
 * Instance replacement on AWS: the only package that imports the AWS SDK for Java v2 (Auto Scaling, with
 * the URL-connection HTTP client, so the SDK brings no second Netty).
 *
 * <p>Uses: {@code outbound}; libraries: {@code software.amazon.awssdk}.
 */
package io.gpuremediator.outbound.aws;

package io.rdma.sample;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's settings are checked as the starter's are: an unknown key under {@code sample.}
 * and a value the sample cannot work with fail the start, and the failure analysis names the
 * property and what it must be.
 */
class SamplePropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(Settings.class);

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(SampleProperties.class)
    static class Settings {
    }

    @Test
    void unsetTheyAreTheDocumentedDefaults() {
        runner.run(context -> {
            SampleProperties properties = context.getBean(SampleProperties.class);
            assertThat(properties.echo().timeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(properties.kv().timeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(properties.kv().slotsPerBucket()).isEqualTo(4);
            assertThat(properties.kv().leaseOrDefault()).as("three times the timeout").isEqualTo(Duration.ofSeconds(15));
            assertThat(properties.load().enabled()).isFalse();
            assertThat(properties.load().workers()).isEqualTo(4);
            assertThat(properties.load().keys()).isEqualTo(64);
            assertThat(properties.load().pause()).isEqualTo(Duration.ofMillis(20));
        });
    }

    @Test
    void aMisspelledKeyFailsTheStartNamingIt() {
        assertRefused("sample.kv.timout=10s", UnboundConfigurationPropertiesException.class, "sample.kv.timout");
    }

    @Test
    void aZeroTimeoutFailsTheStartNamingThePropertyAndWhatItMustBe() {
        assertRefused("sample.kv.timeout=0s", "sample.kv.timeout is PT0S: it must be longer than 0");
        assertRefused("sample.echo.timeout=-1s", "sample.echo.timeout is PT-1S");
        assertRefused("sample.kv.lease=0s", "sample.kv.lease is PT0S");
    }

    @Test
    void aBucketWithoutSlotsAndALoadWithoutWorkersAreRefused() {
        assertRefused("sample.kv.slots-per-bucket=0", "sample.kv.slots-per-bucket is 0: a bucket needs at least one slot");
        assertRefused("sample.load.workers=0", "sample.load.workers (0) and sample.load.keys (64) must be at least 1");
        assertRefused("sample.load.pause=-5ms", "sample.load.pause is PT-0.005S");
    }

    private void assertRefused(String setting, String reason) {
        assertRefused(setting, IllegalArgumentException.class, reason);
    }

    /**
     * The start fails on binding {@code sample.*}, for the {@code reason} a {@code cause} gives:
     * what Boot's failure analysis prints ("Failed to bind properties under ...", "Reason: ...").
     */
    private void assertRefused(String setting, Class<? extends Throwable> cause, String reason) {
        runner.withPropertyValues(setting).run(context -> {
            assertThat(context.getStartupFailure()).as(setting).isNotNull()
                    .hasRootCauseInstanceOf(cause).rootCause().hasMessageContaining(reason);
            assertThat(context.getStartupFailure()).hasCauseInstanceOf(BindException.class);
        });
    }
}

package io.rdma.boot.autoconfigure.metrics;

import io.rdma.spring.listener.ChannelReceivers;
import io.rdma.spring.template.RdmaTemplate;

import java.util.function.Supplier;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Messages dropped with no caller to tell, read on scrape: {@code rdma_template_late_replies_total},
 * replies that came after their request had timed out or been given up, and
 * {@code rdma_listener_unhandled_messages_total}, messages on a channel that neither a listener
 * nor a request was waiting for. Either growing means a peer and this application disagree: a
 * reply timeout shorter than the peer's answers take, or a peer sending where nothing listens.
 * And {@code rdma_template_forgotten_send_failures_total}: sends without a future
 * ({@code RdmaTemplate.sendAndForget}) that failed after their call returned, each also told to
 * the template's {@code ForgottenSendFailureHandler}.
 *
 * <p>The template and the receivers are looked up when read, not when bound: the template needs
 * the observation registry, whose meter handler needs the registries this binds to.
 */
public class DroppedMessageMetrics implements RdmaMeterBinder {

    private final Supplier<RdmaTemplate> template;
    private final Supplier<ChannelReceivers> receivers;

    public DroppedMessageMetrics(Supplier<RdmaTemplate> template, Supplier<ChannelReceivers> receivers) {
        this.template = template;
        this.receivers = receivers;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("rdma.template.late.replies", template, found -> found.get().lateReplies())
                .description("Replies that came after their request had timed out or been given up; dropped")
                .register(registry);
        FunctionCounter.builder("rdma.listener.unhandled.messages", receivers,
                        found -> found.get().unhandledMessages())
                .description("Messages that neither a listener nor a request was waiting for; dropped")
                .register(registry);
        FunctionCounter.builder("rdma.template.forgotten.send.failures", template,
                        found -> found.get().forgottenSendFailures())
                .description("Sends without a future (sendAndForget) that failed after their call returned")
                .register(registry);
    }
}

package io.rdma.spring.config;

import io.rdma.spring.PlainRdmaConfiguration;
import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.convert.RdmaMessageConversion;
import io.rdma.spring.listener.RdmaHeaders;
import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.template.RdmaTemplate;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.AbstractMessageConverter;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.util.MimeType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain Spring application, no Boot: {@code @EnableRdma} and an {@code RdmaResources} bean
 * declared in code, with typed request/reply end to end, and the application's own message
 * conversion where it declares one.
 */
class EnableRdmaTests {

    private static final long WAIT_SECONDS = 30;

    public record Order(String item, int quantity) {
    }

    public record Confirmation(String item, int quantity, int correlationId) {
    }

    @Test
    void aRecordTravelsToATypedListenerMethodAndItsTypedReplyComesBack() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(OrderDesk.class)) {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            Confirmation tea = template.convertSendAndReceive(SimulatedLoopback.CLIENT, new Order("tea", 2),
                    Confirmation.class).get(WAIT_SECONDS, TimeUnit.SECONDS);
            Confirmation cake = template.convertSendAndReceive(SimulatedLoopback.CLIENT, new Order("cake", 1),
                    Confirmation.class).get(WAIT_SECONDS, TimeUnit.SECONDS);

            assertThat(tea.item()).isEqualTo("tea");
            assertThat(tea.quantity()).isEqualTo(2);
            assertThat(cake.item()).isEqualTo("cake");
            assertThat(List.of(tea.correlationId(), cake.correlationId()))
                    .as("the correlation ids the listener was given, each request its own")
                    .containsExactlyElementsOf(context.getBean(OrderDesk.class).correlationIds).doesNotHaveDuplicates();
        }
    }

    @Test
    void theApplicationsOwnMessageConversionReplacesTheDefaultOne() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(OrdersAsText.class,
                RawReceiver.class)) {
            context.getBean(RdmaTemplate.class).convertAndSend(SimulatedLoopback.CLIENT, new Order("tea", 2))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);

            RawReceiver receiver = context.getBean(RawReceiver.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (receiver.received.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(receiver.received).containsExactly("tea*2");
        }
    }

    static class OrderDesk {
        final List<Integer> correlationIds = new CopyOnWriteArrayList<>();

        @RdmaListener(queuePair = SimulatedLoopback.SERVER, concurrency = 1)
        Confirmation confirm(@Payload Order order, @Header(RdmaHeaders.CORRELATION_ID) int correlationId) {
            correlationIds.add(correlationId);
            return new Confirmation(order.item(), order.quantity(), correlationId);
        }
    }

    static class RawReceiver {
        final List<String> received = new CopyOnWriteArrayList<>();

        @RdmaListener(queuePair = SimulatedLoopback.SERVER)
        void receive(byte[] payload) {
            received.add(new String(payload, StandardCharsets.UTF_8));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersAsText {

        @Bean
        RdmaMessageConversion ordersAsText() {
            return new RdmaMessageConversion(RdmaMessageConversion.defaultConverter(new OrderAsTextConverter()));
        }
    }

    /** An {@link Order} as {@code item*quantity}. */
    static final class OrderAsTextConverter extends AbstractMessageConverter {

        OrderAsTextConverter() {
            super(new MimeType("application", "x-order"));
        }

        @Override
        protected boolean supports(Class<?> type) {
            return type == Order.class;
        }

        @Override
        protected Object convertFromInternal(Message<?> message, Class<?> targetClass, @Nullable Object conversionHint) {
            String[] parts = new String((byte[]) message.getPayload(), StandardCharsets.UTF_8).split("\\*");
            return new Order(parts[0], Integer.parseInt(parts[1]));
        }

        @Override
        protected Object convertToInternal(Object payload, @Nullable MessageHeaders headers,
                                           @Nullable Object conversionHint) {
            Order order = (Order) payload;
            return (order.item() + "*" + order.quantity()).getBytes(StandardCharsets.UTF_8);
        }
    }
}

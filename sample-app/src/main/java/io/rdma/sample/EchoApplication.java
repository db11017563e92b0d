package io.rdma.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * An RPC echo service over RDMA, built only on the starter: {@code application.yml} declares a
 * listener that gives each client an RC queue pair of its own, and a client queue pair connected
 * to it through the connection manager; {@link EchoServer} answers every client,
 * {@link EchoClient} calls through its queue pair, {@link EchoController} puts it behind HTTP.
 * Without RDMA hardware, {@code rdma.provider: auto} runs the same configuration on the
 * simulated fabric.
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
public class EchoApplication {

    public static void main(String[] args) {
        SpringApplication.run(EchoApplication.class, args);
    }
}

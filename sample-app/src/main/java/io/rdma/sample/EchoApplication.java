package io.rdma.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An RPC echo service over RDMA, built only on the starter: {@code application.yml} declares an
 * RC queue pair pair (server and client) and connects them; {@link EchoServer} answers on one,
 * {@link EchoClient} calls through the other, {@link EchoController} puts it behind HTTP.
 * Without RDMA hardware, {@code rdma.provider: auto} runs the same configuration on the
 * simulated fabric.
 */
@SpringBootApplication
public class EchoApplication {

    public static void main(String[] args) {
        SpringApplication.run(EchoApplication.class, args);
    }
}

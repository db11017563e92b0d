package com.example.greetings;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.template.RdmaTemplate;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

@Component
public class Greetings implements ApplicationRunner {

    private final RdmaTemplate rdma;
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();

    public Greetings(RdmaTemplate rdma) {
        this.rdma = rdma;
    }

    /** Sends a greeting on the queue pair "greeter"; the future completes when the send has. */
    public CompletableFuture<Void> greet(String name) {
        return rdma.send("greeter", ("hello, " + name).getBytes(StandardCharsets.UTF_8));
    }

    /** Every message that arrives on a connection the listener "greetings" accepted. */
    @RdmaListener(connectionListener = "greetings")
    void receive(byte[] message) {
        received.add(new String(message, StandardCharsets.UTF_8));
    }

    public BlockingQueue<String> received() {
        return received;
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        greet("RDMA").join();
        System.out.println("received: " + received.take());
    }
}

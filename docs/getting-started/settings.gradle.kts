rootProject.name = "greetings"

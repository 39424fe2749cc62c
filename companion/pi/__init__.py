"""What only the Pi has: the LEDs (behind gpiozero's pin_factory seam) and its network addresses."""

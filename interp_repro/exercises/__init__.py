"""Reference solutions of the book's coursework exercises, one module per study."""

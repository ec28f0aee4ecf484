import pytest

from compiler.infer import Renderer


@pytest.fixture
def render_with():
    """A renderer factory whose workers are stopped after the test."""
    made = []

    def make(chat_template, **kwargs):
        renderer = Renderer(chat_template, **kwargs)
        made.append(renderer)
        return renderer

    yield make
    for renderer in made:
        renderer.close()

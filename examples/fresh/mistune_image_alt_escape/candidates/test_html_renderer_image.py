from mistune import HTMLRenderer


def test_renderer_image_does_not_escape_again():
    renderer = HTMLRenderer()
    # text arrives already escaped from the inline renderer
    out = renderer.image("dogs &amp; cats", "dogs.png", "Pets")
    assert out == '<img src="dogs.png" alt="dogs &amp; cats" title="Pets" />'
    plain = renderer.image("dogs", "dogs.png")
    assert plain == '<img src="dogs.png" alt="dogs" />'

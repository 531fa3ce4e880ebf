import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'urql';
import { App } from './App';
import { client } from './api';
import { SessionProvider } from './session';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Provider value={client}>
      <SessionProvider>
        <App />
      </SessionProvider>
    </Provider>
  </StrictMode>,
);
